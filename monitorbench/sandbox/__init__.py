"""sandbox stage of the monitorbench pipeline."""
