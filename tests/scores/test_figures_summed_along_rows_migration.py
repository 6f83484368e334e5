"""Migration 0025: the figures stored with the old matrix products are forgotten, and the first
read stores them again with the engine's bits: the exports equal the conversations scored alone."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotator.models import Campaign, StoredFigures
from tests.commands.helpers import run
from tests.interchange.test_exporting_tables_from_stored_figures import exported, live_tables

BEFORE = [("annotator", "0024_harvesting")]
AFTER = [("annotator", "0025_figures_summed_along_rows")]


@pytest.mark.django_db(transaction=True)
def test_the_stored_figures_are_forgotten_and_stored_again_as_the_engine_scores_each_conversation_alone():
    run("load_demo")
    assert StoredFigures.objects.exists()
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    assert not StoredFigures.objects.exists()
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # the newest schema again, for what follows
    campaign = Campaign.objects.get()
    assert exported(campaign) == live_tables(campaign)
    assert StoredFigures.objects.exists()
