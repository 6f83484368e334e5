import pytest

from tests.factories import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_annotator_logs_in_and_lands_on_their_queue(page, live_server, login):
    make_user("ann")
    login("ann", "ann-pw")
    assert page.url.endswith("/queue/")
    assert page.get_by_role("heading", name="My queue").is_visible()
