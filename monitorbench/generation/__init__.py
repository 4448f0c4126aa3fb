"""generation stage of the monitorbench pipeline."""
