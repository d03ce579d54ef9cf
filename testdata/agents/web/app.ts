export const app = 1
