def test_placeholder():
    assert True