"""Form data for the console's settings pages, as a browser would post them."""

from annotator.models import AttributeSet, Campaign
from annotator.rules.vectors import format_vector


def settings_post(campaign: Campaign, grades: dict[str, float] | None = None, **changes) -> dict:
    campaign.refresh_from_db()
    data = {
        "name": campaign.name, "description": campaign.description, "patience": campaign.patience,
        "alpha": campaign.alpha, "method": campaign.method, "empty_turns": campaign.empty_turns,
        "turn_weight": campaign.turn_weight, "missing_membership": campaign.missing_membership,
        "version": campaign.version,
    }
    if campaign.duplicates_count_once:
        data["duplicates_count_once"] = "on"
    existing = list(campaign.grades.all())
    data.update({
        "grades-TOTAL_FORMS": len(existing) + 1, "grades-INITIAL_FORMS": len(existing),
        "grades-MIN_NUM_FORMS": 0, "grades-MAX_NUM_FORMS": 1000,
    })
    for i, grade in enumerate(existing):
        data.update({
            f"grades-{i}-id": grade.pk, f"grades-{i}-campaign": campaign.pk, f"grades-{i}-label": grade.label,
            f"grades-{i}-level": grade.level, f"grades-{i}-gain": (grades or {}).get(grade.label, grade.gain),
        })
    data[f"grades-{len(existing)}-campaign"] = campaign.pk
    data.update(changes)
    return data


def attribute_set_post(attribute_set: AttributeSet, **changes) -> dict:
    attribute_set.refresh_from_db()
    data = {
        "name": attribute_set.name, "kind": attribute_set.kind, "divergence": attribute_set.divergence,
        "weight": attribute_set.weight, "position": attribute_set.position, "version": attribute_set.version,
        "groups_text": "\n".join(attribute_set.groups), "target_text": format_vector(attribute_set.target),
        "helper_kind": "none", "bands_text": "", "mapping_text": "",
    }
    data.update(changes)
    return data
