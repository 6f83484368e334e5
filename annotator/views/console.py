from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotator.access import organised_campaigns


@login_required
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "console/index.html", {"campaigns": organised_campaigns(request.user)})
