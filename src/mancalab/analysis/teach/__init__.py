"""Teaching: lessons, puzzles, exercises, worksheets and a played game's review."""
