export const port = 8080;
