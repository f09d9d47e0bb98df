"""The HTTP side of QueryWeave: the LangServe app, the JSON/SSE API and the web page (`queryweave serve`)."""
