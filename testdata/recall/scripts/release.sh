#!/bin/sh
npm run build
