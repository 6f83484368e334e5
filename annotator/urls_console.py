"""URLs of the organiser's console (namespace "console")."""

from django.urls import path

from annotator.views import console

urlpatterns = [
    path("", console.index, name="index"),
]
