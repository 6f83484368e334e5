from django.apps import AppConfig
from django.urls import register_converter


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "GFRC annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from annotator import throttling, tokens  # noqa: F401  (connect the rules of failed logins and tokens)
        from annotator import writers  # noqa: F401  (SQLite's connections say when they wait for the writer's lock)
        from annotator.llm_judge import servers  # noqa: F401  (registers the check of the listed LLM servers)
        from annotator.converters import IdConverter

        register_converter(IdConverter, "id")
