"""Command modules of the policy-engine CLI, each registered in click_cli.py with one add_command line."""
