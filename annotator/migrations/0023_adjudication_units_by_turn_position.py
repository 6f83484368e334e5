"""Adjudication decisions name a system turn by its position in the conversation, not by its
S-number: in a conversation that branches two turns are S1 (issue 42). A decision stored before
names the turn S<number> of its line; this migration rewrites it to that turn's position (and
back)."""

from django.db import migrations, models

SEP = "\x1f"  # annotator.judgments.adjudication.SEP, as it was when this migration was written
TURN_KINDS = ("span", "label")


def _rewrite(apps, schema_editor, *, to_position: bool) -> None:
    Decision = apps.get_model("annotator", "AdjudicationDecision")
    Turn = apps.get_model("annotator", "Turn")
    changed = []
    for decision in Decision.objects.filter(unit__regex=r"^(span|label)\x1f").only("conversation_id", "unit").iterator():
        kind, turn, *rest = decision.unit.split(SEP)
        system = Turn.objects.filter(conversation_id=decision.conversation_id, role="S")
        found = (system.filter(number=int(turn)) if to_position else system.filter(position=int(turn))).values_list(
            "position" if to_position else "number", flat=True).first()
        if found is not None:
            decision.unit = SEP.join([kind, str(found), *rest])
            changed.append(decision)
    Decision.objects.bulk_update(changed, ["unit"], batch_size=500)


def to_positions(apps, schema_editor) -> None:
    _rewrite(apps, schema_editor, to_position=True)


def to_numbers(apps, schema_editor) -> None:
    _rewrite(apps, schema_editor, to_position=False)


class Migration(migrations.Migration):

    dependencies = [
        ('annotator', '0022_conversation_trees'),
    ]

    operations = [
        migrations.AlterField(
            model_name='adjudicationdecision',
            name='unit',
            field=models.CharField(help_text='What was settled: span:<turn position>:<entity key>:0, grade:<key>, label:<turn position>, ...', max_length=1200),
        ),
        migrations.RunPython(to_positions, to_numbers),
    ]
