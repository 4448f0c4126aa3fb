"""launch stage of the monitorbench pipeline."""
