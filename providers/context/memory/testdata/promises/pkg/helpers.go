package pkg
