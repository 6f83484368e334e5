"""REST API (Django REST framework): /api/..., schema at /api/schema/, docs at /api/docs/."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from annotator.api import llm_runs, views

router = DefaultRouter()
router.include_format_suffixes = False  # no /api/campaigns.json twins: ?format=json does it
router.register("campaigns", views.CampaignViewSet, basename="api-campaign")
router.register("conversations", views.ConversationViewSet, basename="api-conversation")
router.register("entities", views.EntityViewSet, basename="api-entity")
router.register("nuggets", views.NuggetViewSet, basename="api-nugget")
router.register(r"campaigns/(?P<slug>[-a-zA-Z0-9_]+)/llm-runs", llm_runs.LlmRunViewSet, basename="api-llm-run")

urlpatterns = [
    path("token/", views.obtain_token, name="api-token"),
    path("token/mine/", views.token_page, name="api-token-page"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("", include(router.urls)),
]
