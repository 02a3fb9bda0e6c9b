"""Two disjoint synthetic-text generator families (PPE Section IV-D: train and stress test never share one)."""
