"""GFRC scoring: the maths of Sakai (EVIA 2023), free of Django.

`scoring.words` and `scoring.gfrc` (and the other pure modules) import only numpy and the
standard library; `annotator.scores.per_conversation` is the thin layer that reads the database.
"""
