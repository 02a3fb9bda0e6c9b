"""Command modules of the policy-engine CLI, registered by click_cli."""
