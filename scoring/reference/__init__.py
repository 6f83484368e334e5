"""The plain-Python oracles: each measure written out formula by formula, loops and lists, no
attempt at speed. The tests hold the vectorised maths of `scoring` (and the app's stored
figures) to them, and the benchmarks time the vectorised code beside them. One module per
measure, named after the module it checks:

- `gfrc`: GFRC of conversations (`score_reference`, the twin of `scoring.gfrc.score`);
- `gfr`: GFR, ERR and iRBU of one ranked list (`list_scores`, the twin of `scoring.gfr`);
- `divergence`: JSD, NMD and RNOD (the twins of `scoring.divergence`'s), which both use;
- `agreement`: Krippendorff's alpha from the paper's coincidence matrix;
- `significance`: the randomised Tukey HSD, permutation by permutation;
- `rankings`: tau-AP, word for word from its definition;
- `gfr_from_files`: a participant's own numpy script scoring NTCIREVAL's files (run as
  `python -m scoring.reference.gfr_from_files`), the yardstick of bench/bench_ranked_lists.py.

Like the rest of `scoring`, none of them imports Django.
"""

from scoring.reference.gfrc import ReferenceScores, score_reference

__all__ = ["ReferenceScores", "score_reference"]
