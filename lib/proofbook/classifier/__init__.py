"""The six-way PolitiFact veracity classifier of claims in the wild, and its metrics."""
