"""--dt-check and --extrapolate through run()'s keywords (issue 26): the bias datasets
come back in the Result, the extrapolated value is the value less its bias."""
import sdekit


def test_dt_check_gives_the_bias_and_extrapolate_takes_it_off():
    kw = dict(paths=4096, t_end=1, dt=0.01, observe="drift", precision="double", progress=False)
    plain = sdekit.run("ou", dt_check=True, **kw)
    assert "drift/bias_value" in plain.keys() and "drift/bias_err_value" in plain.keys()
    assert plain["drift/bias_err_value"] < plain["drift/error"]
    ext = sdekit.run("ou", dt_check=True, extrapolate=True, **kw)
    assert ext["drift/value"] == plain["drift/value"] - plain["drift/bias_value"]
