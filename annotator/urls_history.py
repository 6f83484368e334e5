"""URLs of the annotation history (namespace "history")."""

urlpatterns: list = []
