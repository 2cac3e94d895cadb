package server

import (
	_ "embed"
	"net/http"
)

// openAPI is the API's OpenAPI 3.1 document.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the API's OpenAPI 3.1 document (JSON).
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

func handleOpenAPI(w http.ResponseWriter, _ *http.Request) {
	writeRaw(w, http.StatusOK, openAPI)
}
