"""metrics stage of the monitorbench pipeline."""
