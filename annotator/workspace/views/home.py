from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from annotator.access import organised_campaigns


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Annotators land on their queue; organisers with nothing to annotate on the console."""
    if not request.user.assignments.exists() and organised_campaigns(request.user).exists():
        return redirect("console:index")
    return redirect("queue")
