from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.models import Assignment


@login_required
def queue(request: HttpRequest) -> HttpResponse:
    assignments = (
        Assignment.objects.filter(annotator=request.user)
        .select_related("conversation__topic", "conversation__run")
        .order_by("conversation__topic__code", "conversation__run__name")
    )
    return render(request, "annotator/queue.html", {"assignments": assignments})
