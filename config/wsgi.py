import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def _settle() -> None:
    """Load what every request needs now, then hide it from the garbage collector.

    Django, the URLconf, the views and the templates live as long as the process; a full
    collection during a request would walk all of them (a visible part of a 300-nugget save:
    docs/benchmarks-history.md, "Saving a nugget over HTTP"). gc.freeze() moves them to the
    permanent generation, so collections only look at what requests allocate. A request
    allocates thousands of short-lived rows, so the youngest generation is also collected less
    often.
    """
    from django.template.loader import get_template
    from django.urls import get_resolver

    get_resolver().url_patterns  # imports every view module
    for name in ("annotator/conversation.html", "base.html"):
        get_template(name)
    gc.collect()
    gc.freeze()
    gc.set_threshold(int(os.environ.get("GFRC_GC_THRESHOLD", "20000")), 20, 20)


if os.environ.get("GFRC_GC_SETTLE", "1") == "1":
    _settle()
