"""The okf MCP server: bundles as tools for agents, over stdio (see docs/mcp.md).

``okf.mcp.tools`` holds what the tools do and never imports the MCP SDK; ``okf.mcp.server`` registers them
with the SDK and runs the stdio transport.
"""

from __future__ import annotations
