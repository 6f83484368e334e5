"""Serializers: shapes of the API's data. No business rules here: changes go through
annotator.judgments.edits (judgments) and annotator.console.forms (campaign settings)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotator.judgments.edits import MAX_SUBMITTED_NUGGETS
from annotator.models import (AttributeSet, Campaign, Conversation, Entity, Grade, HarvestedAnswer, Nugget, Run, Topic, Turn,
                               TurnLabel)
from annotator.models.conversations import parent_position, word_offsets
from annotator.rules.campaign_settings import CHOICES
from annotator.rules.problems import NOT_A_NUMBER, NOT_A_WHOLE_NUMBER, as_sentence, choice_problem
from scoring.words import span_text, tokenise, word_position


class GradeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Grade
        fields = ["label", "level", "gain"]


class AttributeSetSerializer(serializers.ModelSerializer):
    topic_type = serializers.CharField(source="topic_type.code")

    class Meta:
        model = AttributeSet
        fields = ["id", "topic_type", "name", "kind", "groups", "target", "divergence", "weight", "helper", "version"]


class CampaignSerializer(serializers.ModelSerializer):
    grades = GradeSerializer(many=True, read_only=True)
    attribute_sets = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = [
            "slug", "name", "description", "patience", "alpha", "method", "empty_turns", "turn_weight",
            "duplicates_count_once", "missing_membership", "version", "grades", "attribute_sets",
        ]
        read_only_fields = fields

    def get_attribute_sets(self, campaign) -> list[dict]:
        sets = AttributeSet.objects.filter(topic_type__campaign=campaign).select_related("topic_type")
        return AttributeSetSerializer(sets, many=True).data


def _setting_choice(field: str, choices) -> serializers.ChoiceField:
    """A setting's choices (shown in the schema), a value outside them told in the rule's words
    (annotator.rules.campaign_settings), as the console's form tells it."""
    message = as_sentence(choice_problem(CHOICES[field]))
    return serializers.ChoiceField(choices=choices, required=False, error_messages={"invalid_choice": message})


class CampaignSettingsSerializer(serializers.Serializer):
    """What a settings update may carry (validated by the console's CampaignSettingsForm)."""

    version = serializers.IntegerField()
    name = serializers.CharField(required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    # a number that is none is told in the rule's words; its bounds the rule judges (through the form)
    patience = serializers.IntegerField(required=False, error_messages={"invalid": as_sentence(NOT_A_WHOLE_NUMBER)})
    alpha = serializers.FloatField(required=False, error_messages={"invalid": as_sentence(NOT_A_NUMBER)})
    method = _setting_choice("method", Campaign.Method.choices)
    empty_turns = _setting_choice("empty_turns", Campaign.EmptyTurns.choices)
    turn_weight = _setting_choice("turn_weight", Campaign.TurnWeight.choices)
    duplicates_count_once = serializers.BooleanField(required=False)
    missing_membership = _setting_choice("missing_membership", Campaign.MissingMembership.choices)


class TopicSerializer(serializers.ModelSerializer):
    topic_type = serializers.CharField(source="topic_type.code")

    class Meta:
        model = Topic
        fields = ["id", "code", "topic_type", "description"]


class RunSerializer(serializers.ModelSerializer):
    class Meta:
        model = Run
        fields = ["id", "name", "kind", "system", "trial"]


class TurnSerializer(serializers.ModelSerializer):
    words = serializers.SerializerMethodField()

    class Meta:
        model = Turn
        fields = ["id", "position", "role", "number", "text", "words", "p", "shown", "key"]

    def get_words(self, turn) -> int:
        return len(tokenise(turn.text))


class ConversationListSerializer(serializers.ModelSerializer):
    campaign = serializers.CharField(source="topic.campaign.slug")
    topic = serializers.CharField(source="topic.code")
    run = serializers.CharField(source="run.name")
    done_at = serializers.DateTimeField(
        source="my_done_at", read_only=True, allow_null=True, default=None,
        help_text="When you said your judgment of it is done (null: not done, or not yours to judge)")

    class Meta:
        model = Conversation
        fields = ["id", "campaign", "topic", "run", "source", "gold_annotator", "done_at"]


class HarvestedAnswerSerializer(serializers.ModelSerializer):
    """Where a harvested turn came from (annotator.harvesting); its raw answer is the console's
    download, never part of the API's JSON."""

    turn = serializers.SerializerMethodField()

    class Meta:
        model = HarvestedAnswer
        fields = ["turn", "server", "model", "model_answered", "parameters", "requested_at", "answered_at",
                  "prompt_tokens", "completion_tokens"]

    def get_turn(self, answer) -> str:
        return f"{answer.role}{answer.number}"


class ConversationSerializer(ConversationListSerializer):
    turns = TurnSerializer(many=True, read_only=True)
    harvested = HarvestedAnswerSerializer(source="harvested_answers", many=True, read_only=True,
                                          help_text="Where each turn a model wrote came from, when the app harvested it")

    class Meta(ConversationListSerializer.Meta):
        fields = ConversationListSerializer.Meta.fields + ["is_tree", "turns", "harvested"]

    def to_representation(self, instance) -> dict:
        """Each turn with `parent`, the id of the turn it follows (null for a root): a
        conversation that branches is a tree of turns, a linear one a line."""
        data = super().to_representation(instance)
        id_at = {turn["position"]: turn["id"] for turn in data["turns"]}
        follows = dict(instance.turns.values_list("pk", "follows")) if instance.is_tree else {}
        for turn in data["turns"]:
            up = parent_position(turn["position"], follows.get(turn["id"]))
            turn["parent"] = None if up is None else id_at[up]
        return data


class MembershipValueSerializer(serializers.Serializer):
    vector = serializers.ListField(child=serializers.FloatField())
    evidence = serializers.CharField(allow_blank=True)


class EntitySerializer(serializers.ModelSerializer):
    topic = serializers.CharField(source="topic.code", read_only=True)
    grade = serializers.CharField(source="grade.label", read_only=True, allow_null=True, default=None)
    memberships = serializers.SerializerMethodField()

    class Meta:
        model = Entity
        fields = ["id", "topic", "key", "name", "grade", "comment", "version", "memberships"]
        read_only_fields = fields

    def get_memberships(self, entity) -> dict[str, dict]:
        return {
            m.attribute_set.name: {"vector": m.vector, "evidence": m.evidence}
            for m in entity.memberships.select_related("attribute_set")
        }


class EntityUpdateSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The version you saw; a newer one on the server gives 409.")
    name = serializers.CharField(required=False, allow_blank=True, max_length=1000)
    grade = serializers.CharField(required=False, allow_null=True, help_text="A grade label (L0, L1, ...) or null")
    comment = serializers.CharField(required=False, allow_blank=True)


@extend_schema_field(
    {"oneOf": [{"type": "array", "items": {"type": "number"}}, {"type": "string", "example": "(0,1/2,0,0,0,1/2,0,0)"}]}
)
class VectorField(serializers.Field):
    """A membership vector: a list of numbers, or the text annotators type, "(0,1/2,0,0,0,1/2,0,0)".
    Taken as sent: the edit service reads it (`rules.vectors.read_vector`), its length against
    the attribute set's groups before any of its numbers."""

    def to_internal_value(self, data):
        if isinstance(data, str | list):
            return data
        raise serializers.ValidationError("A list of numbers, or a vector written as text.")

    def to_representation(self, value):
        return value


class MembershipUpdateSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The entity's version you saw.")
    attribute_set = serializers.CharField(help_text="Attribute set name, e.g. ORIGIN")
    vector = VectorField(required=False, allow_null=True)
    evidence = serializers.CharField(required=False, allow_blank=True, default="")


class NuggetSerializer(serializers.ModelSerializer):
    conversation = serializers.IntegerField(source="turn.conversation_id", read_only=True)
    text = serializers.SerializerMethodField()
    wc = serializers.SerializerMethodField(help_text="Position of the nugget's last word in the conversation")

    class Meta:
        model = Nugget
        fields = ["id", "conversation", "turn", "entity", "start_word", "end_word", "text", "wc", "version"]
        read_only_fields = fields

    def get_text(self, nugget) -> str:
        return span_text(tokenise(nugget.turn.text), nugget.start_word, nugget.end_word)

    def get_wc(self, nugget) -> int:
        offsets = self.context.get("offsets", {})
        if nugget.turn_id not in offsets:
            offsets.update(word_offsets_by_turn_id(nugget.turn.conversation_id))
        return word_position(offsets[nugget.turn_id], nugget.end_word)


def word_offsets_by_turn_id(conversation_id: int) -> dict[int, int]:
    """Words before each turn of a conversation, along its path (annotator.models.word_offsets), by turn id."""
    turns = list(Turn.objects.filter(conversation_id=conversation_id).order_by("position").only("position", "follows", "text"))
    return {turn.pk: offset for turn, offset in zip(turns, word_offsets(turns))}


class NuggetCreateSerializer(serializers.Serializer):
    turn = serializers.IntegerField()
    start_word = serializers.IntegerField(min_value=0, help_text="0-based index of the first word in the turn")
    end_word = serializers.IntegerField(min_value=0, help_text="0-based index of the last word in the turn")
    entity = serializers.IntegerField(required=False, allow_null=True, help_text="Your entity; omitted: the one the text names")


class NuggetUpdateSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    start_word = serializers.IntegerField(min_value=0, required=False)
    end_word = serializers.IntegerField(min_value=0, required=False)
    entity = serializers.IntegerField(required=False)


class ScoresSerializer(serializers.Serializer):
    conversation = serializers.IntegerField()
    annotator = serializers.IntegerField(allow_null=True)
    R = serializers.FloatField(allow_null=True)
    GF = serializers.FloatField(allow_null=True)
    GF_m = serializers.DictField(child=serializers.FloatField(), allow_null=True)
    GFRC = serializers.FloatField(allow_null=True)
    detail = serializers.CharField(required=False, help_text="Why there are no scores: the conversation has no gold yet")


class NuggetWithScoresSerializer(serializers.Serializer):
    nugget = NuggetSerializer()
    scores = ScoresSerializer()


class JudgedNuggetSerializer(serializers.Serializer):
    turn = serializers.CharField(max_length=8, help_text='A system turn: "S1", "S2", ...')
    start_word = serializers.IntegerField(min_value=0, help_text="0-based index of the first word within the turn")
    end_word = serializers.IntegerField(min_value=0, help_text="0-based index of the last word within the turn")
    entity = serializers.CharField(required=False, allow_blank=True, max_length=1000,
                                   help_text="The entity's URL or name (default: the nugget's own words)")
    grade = serializers.CharField(required=False, allow_null=True, max_length=16, help_text='e.g. "L2"')
    memberships = serializers.DictField(child=VectorField(), required=False,
                                        help_text='Attribute set -> vector, e.g. {"RATINGS": [0, 0, 0, 1]}')


class JudgmentsSerializer(serializers.Serializer):
    """A whole conversation's judgments by the requesting annotator: they replace what was there."""

    nuggets = JudgedNuggetSerializer(
        many=True, max_length=MAX_SUBMITTED_NUGGETS,
        help_text=f"At most {MAX_SUBMITTED_NUGGETS:,} (larger judgments: import a file); more is a 400",
    )
    labels = serializers.DictField(
        child=serializers.ChoiceField(choices=TurnLabel.Label.values), required=False, help_text='e.g. {"S1": "o", "S2": "x"}'
    )
    version = serializers.IntegerField(
        required=False, min_value=0, max_value=2**63 - 1,
        help_text="The version of your judgments here that this replaces (from GET, or the last answer); "
                  "needed once you have judged the conversation",
    )


class JudgmentsVersionSerializer(serializers.Serializer):
    """Where your judgments of a conversation stand: 409 answers carry it as `current`."""

    version = serializers.IntegerField(help_text="0: you have not judged this conversation")


class JudgmentsResultSerializer(serializers.Serializer):
    nuggets = serializers.IntegerField()
    labels = serializers.IntegerField()
    entities = serializers.IntegerField()
    version = serializers.IntegerField()
    scores = ScoresSerializer()
