"""OS adapters shared by measure/, collect/ and system/."""
