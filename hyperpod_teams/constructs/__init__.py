"""cdktf constructs: each a class with a typed input, its children created in `__init__`, and
explicit attributes other stacks can reference."""
