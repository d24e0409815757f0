"""SCENE: the interactive benchmark: scripted personas enforce a hidden norm with sanctions."""
