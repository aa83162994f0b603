# scripts package
