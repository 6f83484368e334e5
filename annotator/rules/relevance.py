"""Which entities need memberships: the one rule progress, the nugget marks, Table 1 and the
nugget exports share.

An entity needs a membership in every attribute set of its topic type unless it is graded
nonrelevant (gain 0): GF only counts relevant nuggets, and an ungraded entity may yet turn out
relevant, so it needs them too until someone grades it 0.
"""

from __future__ import annotations


def needs_every_membership(gain: float | None) -> bool:
    """`gain`: the entity's grade's gain, None while it is ungraded."""
    return gain is None or gain > 0


def needs_every_membership_sql(gain: str) -> str:
    """The same rule as a SQL condition on `gain`, a column or expression holding the entity's
    grade's gain (NULL while ungraded): what the database counts progress by
    (annotator.judgments.progress)."""
    return f"({gain} IS NULL OR {gain} > 0)"
