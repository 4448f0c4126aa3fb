"""tracking stage of the monitorbench pipeline."""
