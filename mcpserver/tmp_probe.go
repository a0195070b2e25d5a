package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

var _ = mcp.NewServer
