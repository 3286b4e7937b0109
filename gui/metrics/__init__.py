"""File > Import measured acceptance…: engines' metrics files read by model.metrics, shown in all three
conventions with their notes, and applied to the task classes or one tier's overrides as one undo step."""
