"""Tidy, validated tables in data/processed (parquet)."""


rule tables:
    input:
        PROCESSED / "summeval.parquet",
