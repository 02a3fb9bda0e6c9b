"""The output guard's synthetic corpus (generator families, seeds, ordinary answers), its model fitting and its held-out check."""
