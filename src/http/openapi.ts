// Placeholder: replaced by the full OpenAPI document.
export const openApiDocument = { openapi: '3.1.0', info: { title: 'fixloop', version: '0.1.0' }, paths: {} } as const;
