"""Stored figures: every conversation's GFRC figures, kept with the judgments they come from.

The package's modules: `invalidation` (what each change invalidates: the one place that decides),
`writes` (storing), `reads` (reading as arrays and tables), `figures` (what a row holds and how
it is computed), `sql` (the statements). Nothing is re-exported here: callers import the module
whose reason they have.

One row of `StoredFigures` per conversation and annotator who has nuggets in it, and one with
no annotator (the conversation scored with no judgments: what a judge who marked nothing
gets). Each row holds R, GF per attribute set, GF and GFRC under the campaign's settings, and
the inputs a re-score needs (`inputs`: each system turn's end position and number, each
nugget's turn, word position, gain and entity, and per attribute set the conversation's
distinct membership vectors with each nugget's: `distinct_vectors`), so that

- a save writes its conversation's figures in its own transaction (`refresh_conversations`,
  called by `annotator.judgments.edits` for the annotator it touched), and an import writes
  those of the conversations it wrote or changed (`invalidation.conversations_published`);
- a campaign page reads them as plain rows into arrays (`judge_figures`, through `campaign_tables.score_table`), never a model
  instance per conversation;
- a settings change recomputes what it invalidates (`settings_changed`): alpha alone
  recombines stored R and GF in one UPDATE; L, method, empty turns, turn weight, duplicates,
  targets, divergences and weights re-score the stored inputs; grades and attribute sets
  (gains, groups, names) read the judgments again. Each is one vectorised `scoring.gfrc.score`
  per topic type;
- the report's quick L / alpha (`judge_figures(..., settings=...)`) re-scores the stored inputs
  in memory, without writing.

Nothing is kept in a process's memory: every worker and app server reads the same rows.
Whose row counts for a conversation (its gold, else its first human assignee) is decided at
read time (`per_conversation.gold_annotator_rows`), so assigning or adjudicating invalidates
nothing here.
"""
