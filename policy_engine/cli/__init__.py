"""Command modules of the policy-engine CLI (registered in click_cli.py)."""
