"""Django admin for every model: the organiser's fallback for anything the console lacks."""

from django.contrib import admin

from annotator import models


class GradeInline(admin.TabularInline):
    model = models.Grade
    extra = 0


class TopicTypeInline(admin.TabularInline):
    model = models.TopicType
    extra = 0


@admin.register(models.Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "patience", "alpha", "method", "empty_turns", "turn_weight", "duplicates_count_once"]
    filter_horizontal = ["organisers"]
    inlines = [GradeInline, TopicTypeInline]
    prepopulated_fields = {"slug": ["name"]}


class AttributeSetInline(admin.StackedInline):
    model = models.AttributeSet
    extra = 0


@admin.register(models.TopicType)
class TopicTypeAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "campaign"]
    list_filter = ["campaign"]
    inlines = [AttributeSetInline]


@admin.register(models.AttributeSet)
class AttributeSetAdmin(admin.ModelAdmin):
    list_display = ["name", "topic_type", "kind", "divergence", "weight"]
    list_filter = ["topic_type__campaign", "kind"]


@admin.register(models.Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ["code", "topic_type", "campaign"]
    list_filter = ["campaign", "topic_type"]
    search_fields = ["code", "description"]


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "trial", "campaign"]
    list_filter = ["campaign"]


class TurnInline(admin.StackedInline):
    model = models.Turn
    extra = 0


class AssignmentInline(admin.TabularInline):
    model = models.Assignment
    extra = 1
    autocomplete_fields = ["annotator"]


@admin.register(models.Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["__str__", "topic", "run", "gold_annotator"]
    list_filter = ["topic__campaign", "run"]
    search_fields = ["topic__code", "run__name"]
    inlines = [AssignmentInline, TurnInline]


@admin.register(models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["conversation", "annotator", "assigned_at", "done_at"]
    list_filter = ["conversation__topic__campaign", "annotator"]
    autocomplete_fields = ["annotator"]


class MembershipInline(admin.TabularInline):
    model = models.Membership
    extra = 0


@admin.register(models.Entity)
class EntityAdmin(admin.ModelAdmin):
    list_display = ["name", "key", "topic", "annotator", "grade"]
    list_filter = ["topic__campaign", "annotator"]
    search_fields = ["name", "key"]
    inlines = [MembershipInline]


@admin.register(models.Nugget)
class NuggetAdmin(admin.ModelAdmin):
    list_display = ["__str__", "entity", "annotator"]
    list_filter = ["turn__conversation__topic__campaign", "annotator"]


@admin.register(models.TurnLabel)
class TurnLabelAdmin(admin.ModelAdmin):
    list_display = ["turn", "annotator", "label"]


@admin.register(models.AnnotationEvent)
class AnnotationEventAdmin(admin.ModelAdmin):
    list_display = ["at", "actor", "annotator", "action", "kind", "object_id", "conversation"]
    list_filter = ["kind", "action"]
    readonly_fields = [f.name for f in models.AnnotationEvent._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(models.AnnotatorProfile)
class AnnotatorProfileAdmin(admin.ModelAdmin):
    """Organisers mark an account as an automatic judge and say what produced its judgments."""

    list_display = ["user", "is_automatic", "description"]
    list_filter = ["is_automatic"]
    search_fields = ["user__username", "description"]
    autocomplete_fields = ["user"]
