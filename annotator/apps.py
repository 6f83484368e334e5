from django.apps import AppConfig
from django.urls import register_converter


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "GFRC annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from annotator import tokens  # noqa: F401  (connects the rule that revokes tokens)
        from annotator.converters import IdConverter

        register_converter(IdConverter, "id")
