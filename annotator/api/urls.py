"""REST API (Django REST framework)."""

urlpatterns: list = []
