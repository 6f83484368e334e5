# Harvests: a background import remembers the topic given to a harvest's conversations; entity
# keys lose the tracking parameters (utm_*, gclid...) that annotator.rules.identity now ignores.

from django.db import migrations, models

from annotator.rules.identity import NAME_PREFIX, normalise_url


def rekey_entities(apps, schema_editor):
    """Every URL key is normalised again. Two entities of one annotator and topic that now share
    a key (``.../tt1?utm_source=openai`` and ``.../tt1``) become one: the one already holding
    the key (else the older) keeps its grade, name, comment and memberships and takes over
    what the other had and it lacked, and the other's nuggets."""
    Entity = apps.get_model("annotator", "Entity")
    Membership = apps.get_model("annotator", "Membership")
    Nugget = apps.get_model("annotator", "Nugget")
    stale = []
    for entity in Entity.objects.exclude(key__startswith=NAME_PREFIX).order_by("pk").only("pk", "key").iterator():
        try:
            key = normalise_url(entity.key)
        except ValueError:
            continue
        if key != entity.key:
            stale.append((entity.pk, key))
    for pk, key in stale:
        entity = Entity.objects.get(pk=pk)
        keeper = (
            Entity.objects.filter(topic_id=entity.topic_id, annotator_id=entity.annotator_id, key=key).first()
        )
        if keeper is None:
            entity.key = key
            entity.save(update_fields=["key"])
            continue
        changed = []
        for name in ("grade_id", "name", "comment"):
            if not getattr(keeper, name) and getattr(entity, name):
                setattr(keeper, name, getattr(entity, name))
                changed.append(name.removesuffix("_id"))
        if changed:
            keeper.save(update_fields=changed)
        kept_sets = set(Membership.objects.filter(entity_id=keeper.pk).values_list("attribute_set_id", flat=True))
        Membership.objects.filter(entity_id=entity.pk).exclude(attribute_set_id__in=kept_sets).update(entity_id=keeper.pk)
        Nugget.objects.filter(entity_id=entity.pk).update(entity_id=keeper.pk)
        Membership.objects.filter(entity_id=entity.pk).delete()
        entity.delete()


class Migration(migrations.Migration):

    dependencies = [
        ("annotator", "0010_import_job_worker"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="topic",
            field=models.CharField(
                blank=True, max_length=32,
                help_text="The topic of the harvested conversations (files with topics keep theirs)",
            ),
        ),
        migrations.RunPython(rekey_entities, migrations.RunPython.noop),
    ]
