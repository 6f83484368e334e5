"""The benchmark-only URLconf of bench_floor.py: the product's URLs plus two views that do the
least a save round trip can do (bench/lib/floor_settings.py points ROOT_URLCONF here)."""

from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import F
from django.http import HttpResponse
from django.urls import include, path
from django.views.decorators.http import require_GET, require_POST


@login_required
@require_POST
def bare_write(request):
    """One row updated and committed: what any save does at the least."""
    from annotator.models import Nugget

    with transaction.atomic():
        Nugget.objects.filter(pk=int(request.POST["nugget"]), annotator_id=request.user.pk).update(version=F("version") + 1)
    return HttpResponse("saved")


@login_required
@require_GET
def bare_read(request):
    """One query: what any panel reload does at the least."""
    from annotator.models import Nugget

    return HttpResponse(str(Nugget.objects.filter(annotator_id=request.user.pk).count()))


urlpatterns = [
    path("floor/write/", bare_write),
    path("floor/read/", bare_read),
    path("", include("config.urls")),
]
