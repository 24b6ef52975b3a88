"""ludolab.analysis: experiments as tidy tables, charts, results with provenance,
the report, the benchmark and the ``ludolab`` command line."""
