"""monitorbench: measure how well LLM agents write executable verifiers for agent tasks.

The package is laid out as the pipeline it runs:
suites -> generation -> sandbox -> judging -> metrics -> tracking -> launch.
"""

__version__ = "0.1.0"
