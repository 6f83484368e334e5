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


def add_ranked_list_runs(campaign: Campaign) -> None:
    """Three ranked-list runs (web-a, web-b, web-c) on the demo's topics M001 and M002, over
    eight judged pages per topic, through the NTCIREVAL importers."""
    from annotator.interchange.imports.ntcireval import import_ntcireval
    from annotator.interchange.imports.ranked_runs import import_runs

    topics = ["M001", "M002"]
    levels = ["L2", "L1", "L0", "L1", "L2", "L0", "L1", "L0"]
    qrels = "".join(f"{t} d{i} {level}\n" for t in topics for i, level in enumerate(levels))
    ratings = "".join(f"{t} d{i} " + " ".join("1" if g == i % 4 else "0" for g in range(4)) + "\n" for t in topics for i in range(8))
    origin = "".join(f"{t} d{i} " + " ".join("1" if g == i % 8 else "0" for g in range(8)) + "\n" for t in topics for i in range(8))
    result = import_ntcireval(campaign, [("demo.qrels", qrels.encode()), ("demo.M-RATINGS.gmemb", ratings.encode()),
                                         ("demo.M-ORIGIN.gmemb", origin.encode())])
    assert not result.errors, result.errors
    orders = {"web-a": [0, 4, 1, 3, 6, 2], "web-b": [2, 5, 7, 0, 1, 4], "web-c": [1, 0, 2, 3, 4, 5]}
    files = []
    for name, order in orders.items():
        lines = [f"{t} Q0 d{(i + k) % 8} {rank} {10 - rank} {name}\n" for k, t in enumerate(topics)
                 for rank, i in enumerate(order, 1)]
        files.append((name, "".join(lines).encode()))
    result = import_runs(campaign, files)
    assert not result.errors, result.errors
