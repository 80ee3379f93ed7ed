"""Domain logic over the database: providers, inventories, classes, traits, allocations."""
