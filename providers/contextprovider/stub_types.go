package contextprovider

type detectionRules struct{}
type crossMatrix struct{}
type searchIndex struct{}
