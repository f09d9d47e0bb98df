"""Text-to-Cypher: a read-only guard, graph stores (embedded kuzu, Neo4j), a script loader, and the loop."""
