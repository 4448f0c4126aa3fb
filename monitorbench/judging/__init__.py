"""judging stage of the monitorbench pipeline."""
