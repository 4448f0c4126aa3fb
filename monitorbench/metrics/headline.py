"""The headline metrics, in the order a reader takes them in: the normalised balanced accuracy,
then the two rates it is made of, then the false-positive rate on hacks.

One definition for every view that leads with them (the report's tables, the sweep's
leaderboard, the order MLflow lists a run's metrics in), so a new headline metric is one edit.
"""

HEADLINE = ("ba_norm", "tpr", "tnr", "fpr_h")
