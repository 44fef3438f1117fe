"""三丁拐 with 捉鸡: the rules engine of the platform's second game (docs/sandingguai.md).

A self-contained package: it imports :mod:`weimaque.errors`, the standard library and numpy,
nothing else of weimaque. SDG §x.y in comments cites /work/shared/SANDINGGUAI.md.
"""
